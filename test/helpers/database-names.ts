/** The start of the names of a run's test databases, from its template's (the run's teardown drops what is left of them). */
export const testDatabasePrefix = (template: string): string => `pinkas_t_${template.replace(/^pinkas_tpl_/, '')}_`;
