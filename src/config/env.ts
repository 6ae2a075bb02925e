/** Settings travel as strings under their variables' names: the environment, and what flags and files add to it. */
export type Env = Record<string, string | undefined>;
