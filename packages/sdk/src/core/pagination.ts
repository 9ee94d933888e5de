/** The list envelope every list route answers with. */
export interface ListPage<T = unknown> {
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

/** The item type of a list page. */
export type PageItem<TPage> = TPage extends { data: (infer T)[] } ? T : never;

type Query = Record<string, unknown>;

/**
 * What a list method returns: a promise of the first page that is also an async iterable over every item of
 * every page, following `next_cursor` with `starting_after`. Nothing is requested until it is awaited or
 * iterated, and the first page is fetched once however it is consumed.
 *
 * With `ending_before` in the query the walk goes the other way: each next page ends before the newest item
 * seen, and items come nearest to the cursor first.
 */
export class PagePromise<TPage extends ListPage>
  implements PromiseLike<TPage>, AsyncIterable<PageItem<TPage>>
{
  readonly #fetchPage: (query: Query) => Promise<TPage>;
  readonly #query: Query;
  #first: Promise<TPage> | undefined;

  constructor(fetchPage: (query: Query) => Promise<TPage>, query: Query = {}) {
    this.#fetchPage = fetchPage;
    this.#query = query;
  }

  get [Symbol.toStringTag](): string {
    return "PagePromise";
  }

  #firstPage(): Promise<TPage> {
    this.#first ??= this.#fetchPage(this.#query);
    return this.#first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a page promise is meant to be awaited like any promise
  then<R1 = TPage, R2 = never>(
    onfulfilled?: ((value: TPage) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<TPage | R> {
    return this.#firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<TPage> {
    return this.#firstPage().finally(onfinally);
  }

  /** Every page, starting with the first. */
  async *pages(): AsyncGenerator<TPage, void, undefined> {
    const backwards = this.#query.ending_before !== undefined;
    let page = await this.#firstPage();
    yield page;
    while (page.has_more) {
      const cursor = backwards ? idOf(page.data[0]) : (page.next_cursor ?? idOf(page.data.at(-1)));
      if (cursor === undefined) return;
      const { starting_after: _after, ending_before: _before, cursor: _legacy, ...rest } = this.#query;
      page = await this.#fetchPage({ ...rest, [backwards ? "ending_before" : "starting_after"]: cursor });
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<PageItem<TPage>, void, undefined> {
    const backwards = this.#query.ending_before !== undefined;
    for await (const page of this.pages()) {
      const items = page.data as PageItem<TPage>[];
      yield* backwards ? [...items].reverse() : items;
    }
  }

  /**
   * Collects items across pages into an array. `limit` is required so that a large list cannot fill memory
   * by accident; it stops fetching as soon as `limit` items are in.
   */
  toArray(options: { limit: number }): Promise<PageItem<TPage>[]> {
    const limit = (options as { limit?: unknown } | undefined)?.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
      throw new TypeError("toArray() needs { limit }: the most items to collect, a positive integer.");
    }
    return (async () => {
      const out: PageItem<TPage>[] = [];
      for await (const item of this) {
        out.push(item);
        if (out.length >= limit) break;
      }
      return out;
    })();
  }
}

function idOf(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const id = (item as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
}
