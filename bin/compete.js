#!/usr/bin/env node
import { main } from "../dist/bin/compete.js";
await main(process.argv);
