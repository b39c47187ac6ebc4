package sample

fun use(): String = greet("kast")
