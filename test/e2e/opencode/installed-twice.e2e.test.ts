import { installedTwiceSuite } from "./installed-twice-suite.js";
import { OPENCODE } from "./opencode-host.js";

installedTwiceSuite(OPENCODE);
