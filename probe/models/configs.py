"""Model configurations: provider, model and settings, with a label."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from adapters import registry

from .teams import Team


class ModelConfig(models.Model):
    """Provider + model + settings, with a label. The API key is only ever named, never held."""

    class Effort(models.TextChoices):
        NONE = "", _("(not sent)")
        MINIMAL = "minimal", _("minimal")
        LOW = "low", _("low")
        MEDIUM = "medium", _("medium")
        HIGH = "high", _("high")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="model_configs")
    label = models.CharField(_("label"), max_length=120)
    provider = models.CharField(_("provider"), max_length=30)
    model_name = models.CharField(_("model"), max_length=200)
    base_url = models.URLField(
        _("base URL"),
        blank=True,
        help_text=_(
            "For OpenAI-compatible servers (vLLM, Ollama, llama.cpp, OpenRouter) and the simulator."
        ),
    )
    temperature = models.FloatField(_("temperature"), null=True, blank=True)
    max_output_tokens = models.PositiveIntegerField(_("output token limit"), null=True, blank=True)
    reasoning_effort = models.CharField(
        _("reasoning effort"), max_length=10, choices=Effort.choices, blank=True
    )
    thinking_budget = models.PositiveIntegerField(
        _("thinking budget (tokens)"), null=True, blank=True
    )
    seed = models.BigIntegerField(_("seed"), null=True, blank=True)
    api_key_env = models.CharField(
        _("API key environment variable"),
        max_length=100,
        blank=True,
        help_text=_(
            "The NAME of the environment variable that holds the key, such as OPENAI_API_KEY. The key itself is never stored."
        ),
    )
    concurrency_limit = models.PositiveSmallIntegerField(
        _("concurrent requests"),
        default=4,
        help_text=_(
            "At most this many requests at once to this provider and key, across all workers."
        ),
    )
    archived = models.BooleanField(_("archived"), default=False)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    # What the provider charges, in US dollars per million tokens: for costs only, never sent.
    price_input_per_million = models.DecimalField(
        _("price per million input tokens"),
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        help_text=_("In US dollars, from the provider's price list; empty: cost not known."),
    )
    price_output_per_million = models.DecimalField(
        _("price per million output tokens"),
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        help_text=_("In US dollars, from the provider's price list; empty: cost not known."),
    )

    class Meta:
        ordering = ["label", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["team", "label"], name="modelconfig_unique_label")
        ]
        verbose_name = _("model configuration")
        verbose_name_plural = _("model configurations")

    def __str__(self) -> str:
        return self.label

    @property
    def is_simulated(self) -> bool:
        return registry.is_simulated(self.provider)

    @property
    def is_manual(self) -> bool:
        return self.provider == "manual"

    def settings_snapshot(self) -> dict:
        return {
            "label": self.label,
            "provider": self.provider,
            "model_name": self.model_name,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
            "reasoning_effort": self.reasoning_effort,
            "thinking_budget": self.thinking_budget,
            "seed": self.seed,
            "api_key_env": self.api_key_env,
            "concurrency_limit": self.concurrency_limit,
        }
