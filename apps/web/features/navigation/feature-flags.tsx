"use client";

import { createContext, type ReactNode, useContext } from "react";

interface FeatureFlags {
  webhooksEnabled: boolean;
}

const FeatureFlagContext = createContext<FeatureFlags>({ webhooksEnabled: false });

/** Deployment flags the server read for this request, for pages that show or explain switched-off features. */
export function FeatureFlagProvider({ webhooksEnabled, children }: FeatureFlags & { children: ReactNode }) {
  return <FeatureFlagContext.Provider value={{ webhooksEnabled }}>{children}</FeatureFlagContext.Provider>;
}

export function useFeatureFlags(): FeatureFlags {
  return useContext(FeatureFlagContext);
}
