/** Settings travel as strings under their variables' names: the environment, and what flags and files add to it. */
export type Env = Record<string, string | undefined>;

/** The process's environment, for the entry point to hand on: the environment is read in config, nowhere else. */
export const processEnvironment = (): Env => process.env;
