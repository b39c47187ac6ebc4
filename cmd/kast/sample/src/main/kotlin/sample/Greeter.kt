package sample

/** Greets someone by name. */
fun greet(name: String): String = "hi $name"
