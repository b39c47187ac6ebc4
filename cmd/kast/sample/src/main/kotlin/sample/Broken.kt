package sample

fun broken( = "oops"
