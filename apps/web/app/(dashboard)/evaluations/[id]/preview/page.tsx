import { redirect } from "next/navigation";

/**
 * The API's `links.preview` points here: the designs as raters will see them, which the evaluation's page lists
 * under Comparisons.
 */
export default async function PreviewPage({ params }: { params: Promise<{ id: string }> }): Promise<never> {
  const { id } = await params;
  redirect(`/evaluations/${encodeURIComponent(id)}#comparisons-heading`);
}
