// `npm run db:schema`: writes src/db/schema.sql, the live schema of a database migrated from
// nothing on the test server (test/support/schema-dump.ts). Run it after adding or changing a
// migration (and after migrations are renumbered); test/db/schema-file.test.ts checks the file.
import { writeFileAtomic } from "../src/core/write-atomic.js";
import { migratedSchema, SCHEMA_FILE, schemaText } from "../test/support/schema-dump.js";

const objects = await migratedSchema();
writeFileAtomic(SCHEMA_FILE, schemaText(objects));
console.log(`wrote ${SCHEMA_FILE}: ${objects.length} objects`);
