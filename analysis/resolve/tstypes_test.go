package resolve_test

import "testing"

// Destructured bindings take their types from the written type of the
// whole (`{signal}: T` is T['signal']) or from the value destructured;
// indexed access types and the member-preserving utility types (Partial,
// Required, Omit, …) keep the members of the type they wrap.
func TestTypeScriptDestructuredTypes(t *testing.T) {
	files := map[string]string{
		"src/types.ts": `export interface Sig { throwIfAborted(): void; reason: string }
export interface Base { signal?: Sig | null; name: string }
export interface Options extends Omit<Base, 'name'> { retry?: number }
export type Internal = Required<Omit<Options, 'retry'>> & { prefix: string };
`,
		"node_modules/typescript/lib/lib.dom.d.ts": `interface RequestInit { signal?: AbortSignal | null; method?: string }
interface AbortSignal { throwIfAborted(): void }
declare var AbortSignal: { prototype: AbortSignal };
`,
		"src/opts.ts": `export interface KyOptions { json?: unknown }
export interface Options extends KyOptions, Omit<RequestInit, 'headers'> { retry?: number }
export function g(b: Options) { b.signal.throwIfAborted(); }
`,
		"src/app.ts": `import { Internal, Options } from "./types";
type DelayOptions = { signal?: Internal['signal'] };
export function delay({signal}: DelayOptions, {signal: renamed = undefined}: Partial<Options>) {
  signal.throwIfAborted();
  renamed.reason;
}
export function run(opts: Internal) {
  const {signal, prefix} = opts;
  signal.throwIfAborted();
  opts.signal.reason;
}
`,
	}
	checkMarkers(t, files, []marker{
		{"src/app.ts", "throwIfAborted();\n  renamed", 0, "src/types.ts:Sig.throwIfAborted"}, // {signal}: T['k']
		{"src/app.ts", "reason;\n}\nexport", 0, "src/types.ts:Sig.reason"},                   // {signal: renamed = …}: Partial<T>
		{"src/app.ts", "throwIfAborted();\n  opts", 0, "src/types.ts:Sig.throwIfAborted"},    // const {signal} = opts
		{"src/app.ts", "signal.reason", 0, "src/types.ts:Base.signal"},                       // through Required<Omit<…>>
		{"src/app.ts", "reason;\n}\n", 1, "src/types.ts:Sig.reason"},
		{"src/opts.ts", "throwIfAborted", 0, "node_modules/typescript/lib/lib.dom.d.ts:AbortSignal.throwIfAborted"}, // a global supertype
	})
}

// The properties of an object literal a variable is initialized with are
// its members, nested objects' too; they are no names of the scope.
func TestTypeScriptObjectLiteralMembers(t *testing.T) {
	files := map[string]string{
		"src/codes.ts": `export const Codes = {
  NOT_FOUND: "NOT_FOUND",
  nested: { deep: 1 },
  run() { return 1; },
} as const;
`,
		"node_modules/typescript/lib/lib.es5.d.ts": `interface RegExp { exec(s: string): void }
interface String { trim(): string }
`,
		"src/app.ts": `import { Codes } from "./codes";
const NOT_FOUND = 2;
const pattern = /^a+$/, label = "x";
pattern.exec(label.trim());
Codes.NOT_FOUND;
Codes.nested.deep;
Codes.run();
NOT_FOUND;
`,
	}
	checkMarkers(t, files, []marker{
		{"src/app.ts", "NOT_FOUND;\nCodes", 0, "src/codes.ts:Codes.NOT_FOUND"},
		{"src/app.ts", "deep", 0, "src/codes.ts:Codes.nested.deep"},
		{"src/app.ts", "run()", 0, "src/codes.ts:Codes.run"},
		{"src/app.ts", "NOT_FOUND;\n", 1, "src/app.ts:NOT_FOUND"},
		{"src/app.ts", "exec", 0, "node_modules/typescript/lib/lib.es5.d.ts:RegExp.exec"}, // a regex literal's type
		{"src/app.ts", "trim", 0, "node_modules/typescript/lib/lib.es5.d.ts:String.trim"}, // a string literal's
	})
}
