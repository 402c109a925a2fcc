"""The base layer: exceptions, bilingual text, quoting, bounded readers, the kernel's one state and how a
result shows itself; no framework, no variable, no policy. Every layer may import it (docs/architecture.md)."""
