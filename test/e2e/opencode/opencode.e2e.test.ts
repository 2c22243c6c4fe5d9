import { OPENCODE } from "./opencode-host.js";
import { pluginHostSuite } from "./plugin-suite.js";

pluginHostSuite(OPENCODE);
