"use client";

import type { Dispatch, SetStateAction } from "react";
import { Field, FieldSet } from "@/ui";
import type { FieldErrors } from "./create-form-errors";
import { StimulusUpload, type UploadedStimulus } from "./stimulus-upload";

export interface Pair {
  key: number;
  a: string;
  b: string;
  aFile: UploadedStimulus | null;
  bFile: UploadedStimulus | null;
}

let nextPairKey = 1;
export const newPair = (): Pair => ({ key: nextPairKey++, a: "", b: "", aFile: null, bFile: null });

/** The SxS comparisons being created: each pair's two sides, each a URL or an uploaded file. */
export function DesignPairs({
  pairs,
  setPairs,
  errors,
}: {
  pairs: Pair[];
  setPairs: Dispatch<SetStateAction<Pair[]>>;
  errors: FieldErrors;
}) {
  return (
    <FieldSet
      legend="Design pairs"
      hint="Each pair becomes a comparison: raters see version A beside version B."
      error={errors.comparisonPairs}
    >
      <div className="stack">
        {pairs.map((pair, index) => (
          <div className="pair-row" key={pair.key}>
            <Field
              id={`pair-${pair.key}-a`}
              label={`Pair ${index + 1} version A URL`}
              error={errors[`pair-${index}-a`]}
            >
              {(props) => (
                <>
                  <input
                    {...props}
                    type="url"
                    className="mono"
                    value={pair.a}
                    onChange={(e) =>
                      setPairs(pairs.map((p) => (p.key === pair.key ? { ...p, a: e.target.value } : p)))
                    }
                  />
                  <StimulusUpload
                    id={`pair-${pair.key}-a-file`}
                    label={`Or upload version A of pair ${index + 1}`}
                    value={pair.aFile}
                    onChange={(file) =>
                      setPairs((all) => all.map((p) => (p.key === pair.key ? { ...p, aFile: file } : p)))
                    }
                  />
                </>
              )}
            </Field>
            <Field
              id={`pair-${pair.key}-b`}
              label={`Pair ${index + 1} version B URL`}
              error={errors[`pair-${index}-b`]}
            >
              {(props) => (
                <>
                  <input
                    {...props}
                    type="url"
                    className="mono"
                    value={pair.b}
                    onChange={(e) =>
                      setPairs(pairs.map((p) => (p.key === pair.key ? { ...p, b: e.target.value } : p)))
                    }
                  />
                  <StimulusUpload
                    id={`pair-${pair.key}-b-file`}
                    label={`Or upload version B of pair ${index + 1}`}
                    value={pair.bFile}
                    onChange={(file) =>
                      setPairs((all) => all.map((p) => (p.key === pair.key ? { ...p, bFile: file } : p)))
                    }
                  />
                </>
              )}
            </Field>
            <button
              type="button"
              className="button button-ghost"
              onClick={() => setPairs(pairs.filter((p) => p.key !== pair.key))}
              disabled={pairs.length === 1}
              aria-label={`Remove pair ${index + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
      </div>
      <div>
        <button type="button" className="button" onClick={() => setPairs([...pairs, newPair()])}>
          Add pair
        </button>
      </div>
    </FieldSet>
  );
}
