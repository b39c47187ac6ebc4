package sample

fun useAgain(): String = greet("again")
