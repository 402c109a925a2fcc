/**
 * The wire between the kernel and the front end. Every type and constant is generated from the Python schema
 * (mgenv_jupyter/protocol/) into ./schema.ts — `python -m mgenv_jupyter.comms._typescript_schema > labextension/src/schema.ts`; a
 * Python test fails when the two differ. This module only re-exports it, under the names the front end uses.
 */
export * from './schema';
