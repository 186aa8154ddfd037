#!/usr/bin/env node
import { main } from "../dist/bin/spsa.js";
await main(process.argv);
