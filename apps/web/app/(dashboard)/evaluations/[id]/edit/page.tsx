import { redirect } from "next/navigation";

/** The API's `links.edit` points here: the evaluation's page, with a draft's editor open. */
export default async function EditPage({ params }: { params: Promise<{ id: string }> }): Promise<never> {
  const { id } = await params;
  redirect(`/evaluations/${encodeURIComponent(id)}?edit=1`);
}
