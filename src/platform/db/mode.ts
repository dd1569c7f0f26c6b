/** Which database answered: the API's `X-Service-Mode`. Test keys use the sandbox. */
export type Mode = 'live' | 'sandbox';
