/** A mistake in the command line: the CLI prints it with the usage text and exits 2. */
export class CommandLineError extends Error {
  override name = "CommandLineError";
}
