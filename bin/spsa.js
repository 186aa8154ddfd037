#!/usr/bin/env node
import { main } from "../dist/cli/spsa.js";
await main(process.argv);
