import { Command } from "commander";
import type { ConfigFile } from "./options.js";

/** `spsa db …`: the database server, and the ways in for people, other tools and worker machines. */

const dbCommands = () => import("../commands/db.js");

export function addDbCommands(program: Command, config: ConfigFile): void {
  const db = program.command("db").description("manage the database (the embedded server unless DATABASE_URL is set)");
  addServerCommands(db, config);
  addAccessCommands(db, config);
}

/** status, start, stop, remove, orphans: the embedded server's life and its folders. */
function addServerCommands(db: Command, config: ConfigFile): void {
  db.command("status")
    .description("start the database if needed and report it")
    .action(async () => (await dbCommands()).dbStatus({ config: config() }));
  db.command("start")
    .description(
      "start the embedded Postgres (it keeps running between commands); it listens on a Unix socket " +
        "only unless --listen",
    )
    .option(
      "--listen <addr[:port]>",
      "also accept TCP connections there, e.g. 0.0.0.0:5433 for workers on other machines (kept for later starts)",
    )
    .option("--no-listen", "back to the Unix socket only")
    .action(async (opts: { listen?: string | false }) => (await dbCommands()).dbStart({ config: config(), ...opts }));
  db.command("stop")
    .description("stop the embedded Postgres")
    .action(async () => (await dbCommands()).dbStop({ config: config() }));
  db.command("remove")
    .description(
      "stop the embedded Postgres and remove it with all its data (every run): the next command starts an empty one",
    )
    .option("--yes", "really remove it (without: say what would be removed)")
    .action(async (opts: { yes?: boolean }) => (await dbCommands()).dbRemove({ config: config(), ...opts }));
  db.command("orphans")
    .description("list the embedded servers' folders (as root, in /var/tmp) whose checkout or SPSA_HOME is gone")
    .option("--remove", "stop their servers and remove them")
    .option(
      "--unmarked",
      "with --remove: also folders of older versions, which do not say whose they are (unless their server runs)",
    )
    .action(async (opts: { remove?: boolean; unmarked?: boolean }) => (await dbCommands()).dbOrphans(opts));
}

/** url, worker-url, env, psql: how people, other Postgres tools and worker machines reach the database. */
function addAccessCommands(db: Command, config: ConfigFile): void {
  db.command("url")
    .description("print the database URL without its password (for psql use `spsa db psql` or `spsa db env`)")
    .action(async () => (await dbCommands()).dbUrl({ config: config() }));
  db.command("worker-url")
    .description(
      "create (or give a new password to) a worker machine's database role, which can only claim, " +
        "play and report games; prints its URL",
    )
    .requiredOption("--name <name>", "the worker machine, e.g. box1: its role is spsa_worker_<name>")
    .option("--host <addr>", "the database host as workers reach it (default: this machine's URL's host)")
    .option("--output <file>", "write the URL to this file (created mode 0600) instead of stdout")
    .option("--revoke", "drop the machine's role instead: its URL stops working and its sessions end")
    .action(async (opts: { name: string; host?: string; output?: string; revoke?: boolean }) =>
      (await dbCommands()).dbWorkerUrl({ config: config(), ...opts }),
    );
  db.command("env")
    .description(
      'print PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSFILE for other Postgres tools: eval "$(spsa db env)"',
    )
    .action(async () => (await dbCommands()).dbEnv({ config: config() }));
  db.command("psql")
    .description("open psql on the database (the password never on its command line); other arguments go to psql")
    .argument("[args...]", "arguments for psql, e.g. -c 'select * from spsa_progress'")
    .allowUnknownOption()
    .helpOption(false)
    .action(async (args: string[]) => (await dbCommands()).dbPsql({ config: config(), args }));
}
