/** Which database answered: the API's `X-Service-Mode`. Test keys use the sandbox. */
export const MODES = ['live', 'sandbox'] as const;
export type Mode = (typeof MODES)[number];
