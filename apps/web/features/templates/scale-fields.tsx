import { SCALE_POINTS, SCALE_TYPES } from "@rubricon/contracts";
import { SCALE_TYPE_LABELS, type ScaleType, scalePoints, type TemplateFormValues } from "@/lib/templates";
import { Field, FieldRow, FieldSet } from "@/ui";

/** The scale raters score on: its type and range, and a label for each point once the range is valid. */
export function ScaleFields({
  values,
  change,
  changeScaleType,
  errorFor,
}: {
  values: TemplateFormValues;
  change: <K extends keyof TemplateFormValues>(key: K, value: TemplateFormValues[K]) => void;
  changeScaleType: (scaleType: ScaleType) => void;
  errorFor: (key: string) => string | undefined;
}) {
  const points = scalePoints(values);
  return (
    <FieldSet legend="Scale">
      <FieldRow>
        <Field id="tpl-scaleType" label="Scale type" error={errorFor("scaleType")}>
          {(props) => (
            <select
              {...props}
              value={values.scaleType}
              onChange={(e) => changeScaleType(e.target.value as ScaleType)}
            >
              {SCALE_TYPES.map((s) => (
                <option key={s} value={s}>
                  {SCALE_TYPE_LABELS[s]} ({SCALE_POINTS[s]} points)
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="tpl-scaleMin" label="Scale minimum" error={errorFor("scaleMin")}>
          {(props) => (
            <input
              {...props}
              type="number"
              step={1}
              value={values.scaleMin}
              onChange={(e) => change("scaleMin", e.target.value)}
            />
          )}
        </Field>
        <Field id="tpl-scaleMax" label="Scale maximum" error={errorFor("scaleMax")}>
          {(props) => (
            <input
              {...props}
              type="number"
              step={1}
              value={values.scaleMax}
              onChange={(e) => change("scaleMax", e.target.value)}
            />
          )}
        </Field>
      </FieldRow>
      {points.length > 0 ? (
        <div className="scale-labels">
          {points.map((point) => (
            <Field
              key={point}
              id={`tpl-label-${point}`}
              className="scale-label"
              label={`Label for ${point}`}
              error={errorFor(`scaleLabels.${point}`)}
            >
              {(props) => (
                <input
                  {...props}
                  type="text"
                  value={values.scaleLabels[String(point)] ?? ""}
                  onChange={(e) =>
                    change("scaleLabels", { ...values.scaleLabels, [String(point)]: e.target.value })
                  }
                />
              )}
            </Field>
          ))}
        </div>
      ) : (
        <p className="hint">Point labels appear once the scale range is valid.</p>
      )}
    </FieldSet>
  );
}
