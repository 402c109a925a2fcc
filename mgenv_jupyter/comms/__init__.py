"""The kernel's side of the comms with the labextension: the sidebar's requests, each cell's memory, and the generator
of the TypeScript types they speak (labextension/src/schema.ts)."""
