"""The API's endpoints, one module per context, each with its router (joined in ``api.urls``).

Each reaches its object through the token user's memberships, with the role the matching page
needs, and tells a blinded user nothing a blinded page would not.
"""
