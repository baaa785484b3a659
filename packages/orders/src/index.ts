/** Orders and customers of the store API: create-body rules, the 7-state machine, stock commitment, order numbers, customer matching; OrderStore port (memory and SQL). */
export {}
