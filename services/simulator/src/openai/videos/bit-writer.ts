/**
 * Writes an H.264 RBSP bit by bit, most significant bit first: fixed-width fields and the
 * Exp-Golomb codes (ue(v), se(v)) that parameter sets and slice headers are made of.
 */
export class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  /** u(n): `value` in `bits` bits (at most 32). */
  bits(value: number, bits: number): this {
    for (let bit = bits - 1; bit >= 0; bit -= 1) this.bit(Math.floor(value / 2 ** bit) % 2);
    return this;
  }

  flag(value: boolean): this {
    return this.bit(value ? 1 : 0);
  }

  /** ue(v): leading zeros, then value + 1 in binary. */
  ue(value: number): this {
    const coded = value + 1;
    const length = Math.floor(Math.log2(coded)) + 1;
    return this.bits(0, length - 1).bits(coded, length);
  }

  /** se(v): 1, -1, 2, -2, … mapped onto ue(v)'s 1, 2, 3, 4, …. */
  se(value: number): this {
    return this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** Zero bits up to the next byte boundary (pcm_alignment_zero_bit). */
  alignWithZeros(): this {
    while (this.used !== 0) this.bit(0);
    return this;
  }

  /** Whole bytes; the writer must be byte-aligned. */
  raw(data: Uint8Array): this {
    if (this.used !== 0) throw new Error("raw bytes need a byte-aligned writer");
    for (const byte of data) this.bytes.push(byte);
    return this;
  }

  /** rbsp_trailing_bits(): a stop bit, then zeros to the byte boundary. Returns the RBSP. */
  finish(): Buffer {
    this.bit(1).alignWithZeros();
    return Buffer.from(this.bytes);
  }

  private bit(value: number): this {
    this.current = (this.current << 1) | value;
    this.used += 1;
    if (this.used === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.used = 0;
    }
    return this;
  }
}
