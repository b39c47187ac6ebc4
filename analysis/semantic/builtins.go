package semantic

// Names that a language brings into every file without an import, and that
// kast does not index: a call of one of them is never reported unresolved.
// Kotlin's and TypeScript's lists are the lower-case functions only: calls
// of capitalised names (constructors of library classes) are not judged.

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// kotlinDefaults are top-level functions of the packages Kotlin imports by
// default (kotlin.*, kotlin.collections.*, kotlin.text.*, kotlin.io.*,
// kotlin.ranges.*, kotlin.sequences.*, kotlin.comparisons.*, kotlin.jvm.*).
var kotlinDefaults = setOf(
	"println", "print", "readLine", "readln", "readlnOrNull", "require", "requireNotNull", "check",
	"checkNotNull", "error", "assert", "TODO", "repeat", "run", "with", "apply", "also", "let",
	"takeIf", "takeUnless", "lazy", "lazyOf", "to", "synchronized", "suspend", "runCatching",
	"arrayOf", "arrayOfNulls", "emptyArray", "intArrayOf", "longArrayOf", "shortArrayOf",
	"byteArrayOf", "charArrayOf", "floatArrayOf", "doubleArrayOf", "booleanArrayOf", "ubyteArrayOf",
	"ushortArrayOf", "uintArrayOf", "ulongArrayOf", "enumValues", "enumValueOf", "enumEntries",
	"listOf", "listOfNotNull", "mutableListOf", "arrayListOf", "emptyList", "setOf", "setOfNotNull",
	"mutableSetOf", "hashSetOf", "linkedSetOf", "sortedSetOf", "emptySet", "mapOf", "mutableMapOf",
	"hashMapOf", "linkedMapOf", "sortedMapOf", "emptyMap", "buildList", "buildSet", "buildMap",
	"buildString", "sequenceOf", "emptySequence", "sequence", "iterator", "generateSequence",
	"maxOf", "minOf", "compareBy", "compareByDescending", "compareValues", "compareValuesBy",
	"naturalOrder", "reverseOrder", "nullsFirst", "nullsLast", "thenBy", "thenByDescending",
	"typeOf", "emptyArray", "lazyOf", "Result", "success", "failure", "assertNotNull", "contract",
	"doubleArrayOf", "charArrayOf", "arrayOfNulls", "identityHashCode", "measureTimeMillis",
	"measureNanoTime", "measureTime", "measureTimedValue", "use", "also", "invoke", "stackTraceToString",
	"addSuppressed", "printStackTrace", "runBlocking", "coroutineScope", "launch", "async", "delay",
	"withContext", "flowOf", "flow", "emptyFlow", "channelFlow", "callbackFlow", "yield", "yieldAll",
	"mutableStateOf", "remember", "Regex", "StringBuilder", "Pair", "Triple", "Any", "Unit",
	"ArrayDeque", "ArrayList", "HashMap", "HashSet", "LinkedHashMap", "LinkedHashSet",
	"code", "digitToInt", "uppercase", "lowercase", "trimIndent", "trimMargin", "format",
	"CharArray", "ByteArray", "IntArray", "LongArray", "Array", "BooleanArray", "ShortArray",
	"FloatArray", "DoubleArray", "UByteArray", "UIntArray", "ULongArray", "UShortArray",
	"check", "assertTrue", "assertFalse", "assertEquals", "assertNotEquals", "assertNull", "assertFails",
	"assertFailsWith", "assertContains", "assertContentEquals", "assertIs", "assertIsNot", "assertSame",
	"assertNotSame", "fail", "expect", "todo", "charset", "js", "emptyArray", "lazy", "toString",
	"hashCode", "equals", "requireNoNulls", "iterator", "enumValues", "check",
)

// typeScriptGlobals are lower-case functions and values that the standard
// library, the DOM, Node and the common test runners declare globally.
var typeScriptGlobals = setOf(
	"parseInt", "parseFloat", "isNaN", "isFinite", "encodeURI", "encodeURIComponent", "decodeURI",
	"decodeURIComponent", "escape", "unescape", "eval", "setTimeout", "setInterval", "setImmediate",
	"clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask", "structuredClone", "fetch",
	"alert", "confirm", "prompt", "atob", "btoa", "postMessage", "requestAnimationFrame",
	"cancelAnimationFrame", "requestIdleCallback", "cancelIdleCallback", "require", "importScripts",
	"reportError", "getComputedStyle", "matchMedia", "open", "close", "print", "scroll", "scrollTo",
	"scrollBy", "focus", "blur", "describe", "it", "test", "expect", "beforeEach", "afterEach",
	"beforeAll", "afterAll", "before", "after", "suite", "setup", "teardown", "suiteSetup",
	"suiteTeardown", "xit", "xdescribe", "fit", "fdescribe", "context", "specify", "assert", "spyOn",
	"pending", "fail", "jest", "vi", "expectTypeOf", "assertType", "console", "process", "globalThis",
	"window", "document", "navigator", "location", "history", "self", "module", "exports",
	"undefined", "arguments", "gc", "define",
)
