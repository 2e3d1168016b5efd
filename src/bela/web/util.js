// @ts-check
// Small helpers shared by the modules.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
