// Unit tests that start processes (git, an exec credential plugin, a shell, the jq or Lua worker) take longer than
// jest's 5 s default when both cores of a CI machine are busy; a slow machine must not fail them. A test that hangs
// still fails, after 30 s.
import { jest } from '@jest/globals';

jest.setTimeout(30_000);
