import { redirect } from "next/navigation";

/** The API's `links.review` points here; the team's rating screen lives at `/rate`. */
export default async function ReviewPage({ params }: { params: Promise<{ id: string }> }): Promise<never> {
  const { id } = await params;
  redirect(`/evaluations/${encodeURIComponent(id)}/rate`);
}
