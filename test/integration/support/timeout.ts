// Integration tests wait for a real cluster (rollouts, the scheduler): 3 minutes per test, not
// jest's 5 s. Jest reads testTimeout only from the top-level config, so it is set here per project.
import { jest } from '@jest/globals';

jest.setTimeout(180_000);
