// Placeholder until the local control plane lands: integration suites start it once here.
export default async function globalSetup(): Promise<void> {}
