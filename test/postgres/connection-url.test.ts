import { describe, expect, it } from "vitest";
import { describeDatabase, libpqVariables, withoutPassword } from "../../src/postgres/connection.js";

const socketUrl = "postgres://spsa:p%3Ass%40w@localhost:41955/postgres?host=%2Fvar%2Ftmp%2Fspsa-pg-0123456789abcdef";

describe("database URLs shown to people and other tools", () => {
  it("drop the password entirely, keeping the socket folder", () => {
    expect(withoutPassword(socketUrl)).toBe(
      "postgres://spsa@localhost:41955/postgres?host=%2Fvar%2Ftmp%2Fspsa-pg-0123456789abcdef",
    );
    expect(withoutPassword("postgres://u:secret@db.example:5432/spsa?sslmode=require")).toBe(
      "postgres://u@db.example:5432/spsa?sslmode=require",
    );
  });

  it("become libpq's variables, the socket folder as PGHOST and no password", () => {
    expect(libpqVariables(socketUrl)).toEqual({
      PGHOST: "/var/tmp/spsa-pg-0123456789abcdef",
      PGPORT: "41955",
      PGUSER: "spsa",
      PGDATABASE: "postgres",
    });
    expect(libpqVariables("postgres://u:secret@db.example/spsa?sslmode=require")).toEqual({
      PGHOST: "db.example",
      PGUSER: "u",
      PGDATABASE: "spsa",
      PGSSLMODE: "require",
    });
  });

  it("are described by database, host or socket folder and port, with no user or password", () => {
    expect(describeDatabase(socketUrl)).toBe(
      'database "postgres" on the Unix socket in /var/tmp/spsa-pg-0123456789abcdef, port 41955',
    );
    expect(describeDatabase("postgres://u:secret@db.example/spsa?sslmode=require")).toBe(
      'database "spsa" on db.example, port 5432',
    );
    // As libpq: no database name is the user's name; ?host= and ?port= win over the authority.
    expect(describeDatabase("postgres://box1:secret@10.0.0.5:6432")).toBe('database "box1" on 10.0.0.5, port 6432');
    expect(describeDatabase("postgresql:///tuning?host=/run/postgresql&port=5433")).toBe(
      'database "tuning" on the Unix socket in /run/postgresql, port 5433',
    );
    for (const url of [socketUrl, "postgres://u:secret@db.example/spsa"])
      expect(describeDatabase(url)).not.toMatch(/secret|p%3Ass|spsa:|u:/);
  });
});
