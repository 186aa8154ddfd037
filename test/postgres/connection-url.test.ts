import { describe, expect, it } from "vitest";
import { libpqVariables, withoutPassword } from "../../src/postgres/connection.js";

const socketUrl = "postgres://spsa:p%3Ass%40w@localhost:41955/postgres?host=%2Fvar%2Ftmp%2Fspsa-pg-0123456789abcdef";

describe("database URLs shown to people and other tools", () => {
  it("drop the password entirely, keeping the socket folder", () => {
    expect(withoutPassword(socketUrl)).toBe("postgres://spsa@localhost:41955/postgres?host=%2Fvar%2Ftmp%2Fspsa-pg-0123456789abcdef");
    expect(withoutPassword("postgres://u:secret@db.example:5432/spsa?sslmode=require")).toBe("postgres://u@db.example:5432/spsa?sslmode=require");
  });

  it("become libpq's variables, the socket folder as PGHOST and no password", () => {
    expect(libpqVariables(socketUrl)).toEqual({ PGHOST: "/var/tmp/spsa-pg-0123456789abcdef", PGPORT: "41955", PGUSER: "spsa", PGDATABASE: "postgres" });
    expect(libpqVariables("postgres://u:secret@db.example/spsa?sslmode=require")).toEqual({ PGHOST: "db.example", PGUSER: "u", PGDATABASE: "spsa", PGSSLMODE: "require" });
  });
});
