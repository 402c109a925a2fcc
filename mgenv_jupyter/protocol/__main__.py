"""`python -m mgenv_jupyter.protocol`: print the wire schema as TypeScript (labextension/src/schema.ts)."""

from .typescript import typescript

print(typescript(), end="")
