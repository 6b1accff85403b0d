/** cluster-key-slot ships no types: the Redis Cluster slot (CRC16 of the key's hash tag, mod 16384) of a key. */
declare module 'cluster-key-slot' {
  function slotOf(key: string | Buffer): number;
  export = slotOf;
}
