import { installedTwiceSuite } from "../opencode/installed-twice-suite.js";
import { KILO } from "./kilo-host.js";

installedTwiceSuite(KILO);
