"""What the forms of every context share."""


def apply_service_errors(form, error) -> None:
    """Show a service's ValidationError on the form: beside its field, or above the form."""
    if hasattr(error, "error_dict"):
        for field, errors in error.error_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error)
