"use client";

import type { CSSProperties, KeyboardEvent } from "react";
import { PREFERENCE_POINTS, preferenceName, type RatingTemplate, scaleLabel, scalePointsOf } from "./types";

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Left and right arrows move between the points of one scale, as they would in a radio group. */
function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (step === 0) return;
  const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>("button")];
  const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next = buttons[index + step];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

interface ControlProps {
  template: RatingTemplate;
  value: number | undefined;
  onChange: (value: number) => void;
  labelledBy: string;
  disabled?: boolean;
}

/** One button per point of the template's scale, scaleMin to scaleMax, with its label under the number. */
export function ScaleButtons({ template, value, onChange, labelledBy, disabled }: ControlProps) {
  const points = scalePointsOf(template);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a fieldset of form inputs
    <div
      role="group"
      aria-labelledby={labelledBy}
      className="scale-buttons"
      // The column count follows the scale (3, 5 or 7 points); narrow screens wrap instead (app/styles/rating.css).
      style={{ "--points": points.length } as CSSProperties}
      onKeyDown={moveFocus}
    >
      {points.map((point) => {
        const label = scaleLabel(template, point);
        return (
          <button
            key={point}
            type="button"
            className="scale-button"
            aria-pressed={value === point}
            aria-label={label ? `${point} – ${label}` : String(point)}
            disabled={disabled}
            onClick={() => onChange(point)}
          >
            <span className="scale-button-value">{point}</span>
            {/* A space between the number and its words: the visible text must read as the name ("6 Very good"). */}
            {label && " "}
            {label && <span className="scale-button-label">{label}</span>}
          </button>
        );
      })}
    </div>
  );
}

/** Seven points from "A much better" through "About the same" to "B much better". */
export function PreferenceButtons({ template, value, onChange, labelledBy, disabled }: ControlProps) {
  return (
    <div className="preference">
      <div className="preference-ends" aria-hidden="true">
        <span>
          <span className="side-tag">A</span> is better
        </span>
        <span>
          <span className="side-tag">B</span> is better
        </span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a fieldset of form inputs */}
      <div role="group" aria-labelledby={labelledBy} className="preference-buttons" onKeyDown={moveFocus}>
        {PREFERENCE_POINTS.map((point) => {
          const name = preferenceName(point, template.labels);
          const side = point < 0 ? "a" : point > 0 ? "b" : "none";
          return (
            <button
              key={point}
              type="button"
              className={`preference-button preference-${side} preference-strength-${Math.abs(point)}`}
              aria-pressed={value === point}
              aria-label={name}
              title={name}
              disabled={disabled}
              onClick={() => onChange(point)}
            >
              <span className="preference-dot" aria-hidden="true" />
              <span className="preference-label">{point === 0 ? name : capitalize(name.slice(2))}</span>
            </button>
          );
        })}
      </div>
      {/* Narrow screens hide the words under the points; this line then says what was picked. */}
      <p className="preference-readout" aria-hidden="true">
        {value === undefined ? "Pick a point between A and B." : preferenceName(value, template.labels)}
      </p>
    </div>
  );
}
