/** Where the agent sends its model requests, and the key it sends. */
export interface AgentGateway {
  /** The gateway's origin, `http://127.0.0.1:8080`: each agent adds its own API path. */
  origin: string;
  apiKey: string;
}

/** One headless run, in a fresh home and working directory of its own. */
export interface AgentTask {
  gateway: AgentGateway;
  model: string;
  prompt: string;
  home: string;
  workDir: string;
}

export interface AgentInvocation {
  args: string[];
  env: Record<string, string>;
}

/** What the agent printed as its final answer, and the failure it reported, if any. */
export interface AgentReply {
  text: string;
  error?: string;
}

/** How one coding agent is pointed at the gateway and run without a terminal. */
export interface AgentDriver {
  /** A `[sim:tool=...]` directive that has the simulator call the agent's read-only file tool on `file`. */
  readFileDirective(workDir: string, file: string): string;
  /** Writes the agent's configuration under `task.home` or `task.workDir`; answers its command line. */
  invocation(task: AgentTask): AgentInvocation;
  reply(stdout: string): AgentReply;
}
