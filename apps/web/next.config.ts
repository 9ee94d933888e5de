import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The workspace packages ship TypeScript sources, not builds; Next compiles them with the app.
  transpilePackages: ["@rubricon/api", "@rubricon/core", "@rubricon/db", "@rubricon/contracts"],
  // PGlite loads its WASM and data files from beside its own module, and postgres.js uses Node sockets:
  // both must be required at run time from node_modules rather than bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
