import { embeddedServer, stopEmbeddedServer } from "../../src/db/embedded.js";
import { TEST_HOME } from "./database.js";

/** Stops the tests' own embedded server at the end of the run, so no server outlives the suite. */
export default function setup(): () => Promise<void> {
  return async () => {
    await stopEmbeddedServer(embeddedServer(TEST_HOME));
  };
}
