"""`python -m mgenv_jupyter.protocol`: print the wire schema as TypeScript (labextension/src/schema.ts)."""

from ._typescript import typescript

print(typescript(), end="")
