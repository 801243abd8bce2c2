// Placeholder until the local control plane lands.
export default async function globalTeardown(): Promise<void> {}
