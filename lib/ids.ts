import { randomBase62 } from './base62';

export type IdPrefix = 'usr' | 'prj' | 'key' | 'ses' | 'rtk' | 'ssh' | 'col' | 'evt' | 'job' | 'dep' | 'app' | 'dom' | 'wrk' | 'crn' | 'run' | 'log' | 'spn' | 'sfv' | 'prc' | 'rev' | 'svoc' | 'ogr' | 'oaz' | 'ort' | 'ntf' | 'nta' | 'inv' | 'sit' | 'ast' | 'db' | 'cln' | 'vm' | 'gcn' | 'gcs' | 'int' | 'idl' | 'iat' | 'ins' | 'crd' | 'cmp' | 'chk' | 'aud' | 'tsc' | 'tsr';

/** An opaque, random, URL-safe id with a type prefix: `prj_4f9KqzT0aBcD1eFg`. */
export function newId(prefix: IdPrefix): string {
    return `${prefix}_${randomBase62(16)}`;
}

export const idPattern = (prefix: IdPrefix) => new RegExp(`^${prefix}_[0-9A-Za-z]{16}$`);
