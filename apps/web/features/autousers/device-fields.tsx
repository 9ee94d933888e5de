import { DEVICE_KINDS, NETWORK_PROFILES } from "@rubricon/contracts";
import { DEVICE_LABELS, NETWORK_LABELS } from "@/lib/autousers";
import { Field, FieldRow, FieldSet } from "@/ui";
import type { DeviceKind, Values } from "./autouser-values";

/** The device the persona browses on: its kind, viewport and network. */
export function DeviceFields({
  values,
  change,
  changeKind,
  shown,
}: {
  values: Values;
  change: <K extends keyof Values>(key: K, value: Values[K]) => void;
  changeKind: (kind: DeviceKind) => void;
  shown: (key: string) => string | undefined;
}) {
  return (
    <FieldSet legend="Device">
      <FieldRow>
        <Field id="au-kind" label="Device kind">
          {(props) => (
            <select {...props} value={values.kind} onChange={(e) => changeKind(e.target.value as DeviceKind)}>
              {DEVICE_KINDS.map((k) => (
                <option key={k} value={k}>
                  {DEVICE_LABELS[k]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="au-width" label="Viewport width" error={shown("width")}>
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={values.width}
              onChange={(e) => change("width", e.target.value)}
            />
          )}
        </Field>
        <Field id="au-height" label="Viewport height" error={shown("height")}>
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={values.height}
              onChange={(e) => change("height", e.target.value)}
            />
          )}
        </Field>
        <Field id="au-network" label="Network">
          {(props) => (
            <select
              {...props}
              value={values.network}
              onChange={(e) => change("network", e.target.value as Values["network"])}
            >
              {NETWORK_PROFILES.map((n) => (
                <option key={n} value={n}>
                  {NETWORK_LABELS[n]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FieldRow>
    </FieldSet>
  );
}
