#!/usr/bin/env node
import { main } from "../dist/cli/compete.js";
await main(process.argv);
