import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const dev = process.env.NODE_ENV !== "production";

/**
 * The dashboard's pages may not be framed anywhere (clickjacking), share pages included. The CSP allows what the
 * pages use: Next's inline bootstrap scripts and styles, and the designs being rated, which live on any site and are
 * shown as images, video or frames. HSTS is added by the production server, which knows whether BASE_URL is https.
 */
const CSP = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob: https: http:",
  "frame-src https: http:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: CSP },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

const nextConfig: NextConfig = {
  // `pnpm build` assembles a deployable folder from this (tooling/scripts/artifact.mjs): the server files Next
  // traced, with only the node_modules they use. Tracing starts at the workspace root so the packages are found.
  output: "standalone",
  outputFileTracingRoot: fileURLToPath(new URL("../..", import.meta.url)),
  // The workspace packages ship TypeScript sources, not builds; Next compiles them with the app.
  transpilePackages: [
    "@rubricon/agents",
    "@rubricon/api",
    "@rubricon/core",
    "@rubricon/db",
    "@rubricon/contracts",
  ],
  // PGlite loads its WASM and data files from beside its own module, and postgres.js uses Node sockets:
  // both must be required at run time from node_modules rather than bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default nextConfig;
