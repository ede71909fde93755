// Record ids: every table's primary key is a UUID.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a text can be a stored id; anything else matches no row, and is answered as not found. */
export const isUuid = (value: string): boolean => UUID.test(value);
