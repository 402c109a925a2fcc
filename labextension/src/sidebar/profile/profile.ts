/**
 * The notebook profile: the variables chosen in the sidebar, kept in the notebook's metadata
 * (`metadata.mgenv_jupyter.profile = {NAME: VALUE}`) so they travel with the file and are applied whenever the
 * notebook's kernel starts. Other keys under `metadata.mgenv_jupyter` are left alone.
 */

import { isSecretName } from '../../protocol';

export type Profile = Record<string, string>;

export const METADATA_KEY = 'mgenv_jupyter';

/** What the profile needs from a notebook model (INotebookModel has these three). */
export interface MetadataHost {
  getMetadata(key: string): unknown;
  setMetadata(key: string, value: unknown): void;
  deleteMetadata(key: string): void;
}

/**
 * Values of names holding secrets (as the kernel masks them) are never written into a file that travels. The rule is
 * the kernel's own (catalog/_secrets.py), generated into the wire schema; a secret by value only the kernel can tell.
 */
export function isSecret(name: string): boolean {
  return isSecretName(name);
}

/** The profile stored in the notebook; anything malformed (hand-edited metadata) is skipped, never trusted. */
export function readProfile(host: MetadataHost): Profile {
  const section = host.getMetadata(METADATA_KEY);
  const stored = isRecord(section) ? section['profile'] : undefined;
  const profile: Profile = {};
  if (isRecord(stored)) {
    for (const [name, value] of Object.entries(stored)) {
      if (typeof value === 'string' && !isSecret(name)) {
        profile[name] = value;
      }
    }
  }
  return profile;
}

/** Set (value) or remove (null) one variable in the stored profile; returns the new profile. */
export function updateProfile(host: MetadataHost, name: string, value: string | null): Profile {
  const profile = readProfile(host);
  if (value === null || isSecret(name)) {
    delete profile[name];
  } else {
    profile[name] = value;
  }
  const section = host.getMetadata(METADATA_KEY);
  const rest: Record<string, unknown> = isRecord(section) ? { ...section } : {};
  delete rest['profile'];
  if (Object.keys(profile).length) {
    host.setMetadata(METADATA_KEY, { ...rest, profile });
  } else if (Object.keys(rest).length) {
    host.setMetadata(METADATA_KEY, rest);
  } else if (section !== undefined) {
    host.deleteMetadata(METADATA_KEY);
  }
  return profile;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
