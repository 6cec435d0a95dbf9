import { BitWriter } from "./bit-writer.js";

// The smallest H.264 stream a decoder plays for real: Constrained Baseline, CAVLC, one slice
// per picture. The first picture is an IDR whose macroblocks are all I_PCM (raw samples, so
// nothing has to be transformed or predicted); every later picture is a P picture whose
// macroblocks are all P_Skip (a copy of the previous picture). A still image, encoded exactly.

const PROFILE_IDC = 66; // Baseline
const CONSTRAINT_FLAGS = 0xc0; // constraint_set0 and constraint_set1: Constrained Baseline
const LEVEL_IDC = 30; // 3.0, far above what these pictures need
const LOG2_MAX_FRAME_NUM = 4;
const MB_TYPE_I_PCM = 25;
const SLICE_TYPE_P = 5; // 5 and 7: every slice of the picture has this type
const SLICE_TYPE_I = 7;
const NAL_SLICE = 1;
const NAL_IDR_SLICE = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;
const NAL_REF_IDC = 3;

/** One picture's colour in limited-range Y'CbCr, 4:2:0. */
export interface YCbCr {
  y: number;
  cb: number;
  cr: number;
}

export interface FrameSize {
  width: number;
  height: number;
}

/** The NAL unit: header byte, then the RBSP with emulation prevention bytes inserted. */
function nalUnit(type: number, rbsp: Buffer): Buffer {
  const out: number[] = [(NAL_REF_IDC << 5) | type];
  let zeros = 0;
  for (const byte of rbsp) {
    // 00 00 followed by 00..03 would read as a start code (or escape): break it with 03.
    if (zeros === 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

const macroblocks = ({ width, height }: FrameSize) => (width / 16) * (height / 16);

function sequenceParameterSet({ width, height }: FrameSize): Buffer {
  const rbsp = new BitWriter()
    .bits(PROFILE_IDC, 8)
    .bits(CONSTRAINT_FLAGS, 8)
    .bits(LEVEL_IDC, 8)
    .ue(0) // seq_parameter_set_id
    .ue(LOG2_MAX_FRAME_NUM - 4)
    .ue(2) // pic_order_cnt_type 2: output order is decoding order
    .ue(1) // max_num_ref_frames
    .flag(false) // gaps_in_frame_num_value_allowed_flag
    .ue(width / 16 - 1)
    .ue(height / 16 - 1)
    .flag(true) // frame_mbs_only_flag
    .flag(true) // direct_8x8_inference_flag
    .flag(false) // frame_cropping_flag
    .flag(false) // vui_parameters_present_flag
    .finish();
  return nalUnit(NAL_SPS, rbsp);
}

function pictureParameterSet(): Buffer {
  const rbsp = new BitWriter()
    .ue(0) // pic_parameter_set_id
    .ue(0) // seq_parameter_set_id
    .flag(false) // entropy_coding_mode_flag: CAVLC
    .flag(false) // bottom_field_pic_order_in_frame_present_flag
    .ue(0) // num_slice_groups_minus1
    .ue(0) // num_ref_idx_l0_default_active_minus1
    .ue(0) // num_ref_idx_l1_default_active_minus1
    .flag(false) // weighted_pred_flag
    .bits(0, 2) // weighted_bipred_idc
    .se(0) // pic_init_qp_minus26
    .se(0) // pic_init_qs_minus26
    .se(0) // chroma_qp_index_offset
    .flag(true) // deblocking_filter_control_present_flag, so slices can switch it off
    .flag(false) // constrained_intra_pred_flag
    .flag(false) // redundant_pic_cnt_present_flag
    .finish();
  return nalUnit(NAL_PPS, rbsp);
}

/** The IDR picture: every macroblock I_PCM, filled with one colour. */
function idrPicture(size: FrameSize, colour: YCbCr): Buffer {
  const samples = Buffer.concat([
    Buffer.alloc(256, colour.y),
    Buffer.alloc(64, colour.cb),
    Buffer.alloc(64, colour.cr),
  ]);
  const writer = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(SLICE_TYPE_I)
    .ue(0) // pic_parameter_set_id
    .bits(0, LOG2_MAX_FRAME_NUM) // frame_num
    .ue(0) // idr_pic_id
    .flag(false) // no_output_of_prior_pics_flag
    .flag(false) // long_term_reference_flag
    .se(0) // slice_qp_delta
    .ue(1); // disable_deblocking_filter_idc: off
  for (let index = 0; index < macroblocks(size); index += 1) {
    writer.ue(MB_TYPE_I_PCM).alignWithZeros().raw(samples);
  }
  return nalUnit(NAL_IDR_SLICE, writer.finish());
}

/** The n-th picture after the IDR (n ≥ 1): all macroblocks skipped, so it repeats the one before. */
function skippedPicture(size: FrameSize, n: number): Buffer {
  const rbsp = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(SLICE_TYPE_P)
    .ue(0) // pic_parameter_set_id
    .bits(n % 2 ** LOG2_MAX_FRAME_NUM, LOG2_MAX_FRAME_NUM) // frame_num: one more per reference picture
    .flag(false) // num_ref_idx_active_override_flag
    .flag(false) // ref_pic_list_modification_flag_l0
    .flag(false) // adaptive_ref_pic_marking_mode_flag: sliding window
    .se(0) // slice_qp_delta
    .ue(1) // disable_deblocking_filter_idc: off
    .ue(macroblocks(size)) // mb_skip_run: the whole picture
    .finish();
  return nalUnit(NAL_SLICE, rbsp);
}

/** The RFC 6381 codec string of these streams, as MP4 and WebCodecs name it. */
export const H264_CODEC = `avc1.${[PROFILE_IDC, CONSTRAINT_FLAGS, LEVEL_IDC].map((byte) => byte.toString(16).padStart(2, "0").toUpperCase()).join("")}`;

const START_CODE = Buffer.from([0, 0, 0, 1]);
const annexB = (...units: Buffer[]) => Buffer.concat(units.flatMap((unit) => [START_CODE, unit]));

/**
 * `count` access units in Annex B form showing one colour: the first carries the parameter
 * sets and the IDR picture, each later one a skipped picture.
 */
export function stillPictureStream(size: FrameSize, colour: YCbCr, count: number): Buffer[] {
  const first = annexB(sequenceParameterSet(size), pictureParameterSet(), idrPicture(size, colour));
  return [first, ...Array.from({ length: count - 1 }, (_, index) => annexB(skippedPicture(size, index + 1)))];
}
