import {
  ACCESSIBILITY_NEEDS,
  type DeviceKind,
  type Expertise,
  type NetworkProfile,
  type Persona,
} from "@rubricon/agents";
import {
  ACCESSIBILITY_NEED_VALUES,
  type Autouser,
  DEVICE_KINDS,
  EXPERTISE_LEVELS,
  NETWORK_PROFILES,
} from "@rubricon/contracts";
import type { PersonaRow } from "@rubricon/db";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("persona vocabulary", () => {
  it("the API accepts exactly the accessibility needs the agents know", () => {
    expect([...ACCESSIBILITY_NEED_VALUES]).toEqual([...ACCESSIBILITY_NEEDS]);
  });

  it("device kinds, network profiles and expertise agree with the agents' types", () => {
    expectTypeOf<(typeof DEVICE_KINDS)[number]>().toEqualTypeOf<DeviceKind>();
    expectTypeOf<(typeof NETWORK_PROFILES)[number]>().toEqualTypeOf<NetworkProfile>();
    expectTypeOf<(typeof EXPERTISE_LEVELS)[number]>().toEqualTypeOf<Expertise>();
    expectTypeOf<Autouser["device"]>().toEqualTypeOf<Persona["device"]>();
    expectTypeOf<PersonaRow["device"]>().toEqualTypeOf<Persona["device"]>();
    expect(DEVICE_KINDS).toHaveLength(2);
    expect(NETWORK_PROFILES).toHaveLength(3);
    expect(EXPERTISE_LEVELS).toHaveLength(3);
  });
});
