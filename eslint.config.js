import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "engines/", "migrations/", ".spsa/", ".spsa-test/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The dashboard's page scripts run in the browser.
    files: ["src/dashboard/static/**/*.js"],
    languageOptions: {
      globals: { document: "readonly", location: "readonly", fetch: "readonly", EventSource: "readonly", Node: "readonly", URLSearchParams: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
  },
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
