import { randomBytes } from "node:crypto";

/**
 * Our order number: "tu" and 28 hex digits (112 random bits), 30 characters. Letters and
 * digits only, because Alipay accepts letters, digits and underscores and WeChat Pay at most
 * 32 characters; random, so a number reveals nothing about other orders.
 */
export const newOutTradeNo = (): string => `tu${randomBytes(14).toString("hex")}`;

export const OUT_TRADE_NO_PATTERN = /^[A-Za-z0-9_-]{6,32}$/;
