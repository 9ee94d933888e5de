import type { Metadata } from "next";
import Link from "next/link";
import { ErrorCodesTable } from "@/features/error-codes";
import { PageHeader } from "@/ui/page-header";

export const metadata: Metadata = { title: "Error codes" };

export default function ErrorCodesPage() {
  return (
    <main className="container">
      <PageHeader
        title="Error codes"
        description={
          <>
            Every error answers{" "}
            <code>{"{ error: { type, code, message, param, doc_url, request_id } }"}</code>;{" "}
            <code>doc_url</code> links the code's row below. The operations are in the{" "}
            <Link href="/docs">API reference</Link>.
          </>
        }
      />
      <ErrorCodesTable />
    </main>
  );
}
